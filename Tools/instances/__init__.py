"""liftpy.instances (Tools/instances/): the instance heads' training data, grouping, tuning and measuring stick. See Tools/instances/README.md."""
