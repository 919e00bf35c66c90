"""User-facing errors: each renders as one line naming the file/field/object and what to do."""


class KubeberthError(Exception):
    """Base for errors shown to users as a single line (exit code 2 from the CLI)."""


class ConfigError(KubeberthError):
    """A scheduler configuration that cannot be used."""


class PluginLoadError(KubeberthError):
    """A plugin that cannot be loaded or registered."""


class ManifestError(KubeberthError):
    """A cluster manifest that cannot be read."""
