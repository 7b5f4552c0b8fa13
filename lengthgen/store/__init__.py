"""The store: the content-addressed cache (locks, safetensors files), the code fingerprint in every key,
writable-directory checks, and the cached kinds (trained models and evaluations of both families)."""
