"""liftpy.integration (Tools/integration/): end-to-end checks of `lift serve`'s web page in a headless browser. See Tools/README.md."""
