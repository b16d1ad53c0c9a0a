"""Rendering findings for people and machines: terminal, tables, HTML pages."""
