"""Modules shared by several jobs of Tools/ (conversion, fixtures, training, evaluation): the subject
model and its blocks, the EfficientNet-Lite0 encoder, DUTS data loading, the PyTorch -> `lift.graph/1`
exporter and the numpy reference interpreter. See Tools/README.md."""
