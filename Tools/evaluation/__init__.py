"""liftpy.evaluation (Tools/evaluation/): scoring subject masks on the DUTS-TE validation set. See Tools/README.md."""
