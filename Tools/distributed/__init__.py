"""liftpy.distributed (Tools/distributed/): cut-outs of a manifest on a Dask cluster, the local-cluster check and the container deployment check. See Tools/README.md."""
