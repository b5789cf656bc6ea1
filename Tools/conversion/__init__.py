"""liftpy.conversion (Tools/conversion/): scripts that write the shipped model files in Weights/ (and the subject model's ONNX twin). See Tools/README.md."""
