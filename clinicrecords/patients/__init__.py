"""Patients and patient imports."""


def includeme(config):
    pass
