"""The plugin-facing API: hook specifications and the types hooks receive and return."""
