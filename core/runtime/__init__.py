"""The framework runtime: configuration, plugin loading, generations and per-profile frameworks."""
