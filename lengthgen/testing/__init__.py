"""pytest support: the plugin (options, thread caps, claim records, reports) and claim-test helpers."""
