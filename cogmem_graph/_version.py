"""This release's version, in a module of its own so that code below the facade (the data
layout stamps) can read it without importing the package's public names."""

VERSION = "0.2.0"
