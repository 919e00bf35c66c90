"""Scheduling state: the columnar node table, parsed pods, the cluster cache and quantities."""
