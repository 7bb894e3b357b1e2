"""Dataset registry, download and mirror, readers, and the GraphSet storage format."""
