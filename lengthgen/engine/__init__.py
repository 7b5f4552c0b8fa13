"""The engine: ensembles of seeds trained in one batched pass (both model families), their evaluation
over lengths, how members group into passes, and where passes run (processes, a Dask cluster)."""
