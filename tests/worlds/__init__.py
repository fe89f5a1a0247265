"""Shared fixture worlds: each module builds one small world through the services (a stage at
each step of its life, the published world with every role, a real worker …). A test module
uses one with ``from tests.worlds.<name> import *``; a folder's conftest.py may too."""
