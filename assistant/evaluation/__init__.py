"""Measuring the decomposer and the time resolver on labelled text from outside the project."""
