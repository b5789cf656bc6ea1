"""liftpy.training (Tools/training/): the subject model's trainers (CPU and lent GPU), their shared recipe and data packing. See Tools/README.md."""
