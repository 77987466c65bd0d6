"""Dagster resources: thin, typed wrappers that hand the Dagster-free core its clients.

Secrets and the database URL are bound with dg.EnvVar in definitions.py; the rest falls
back to wove_pipeline.settings, read when a run starts (never at import).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import dagster as dg
import psycopg

from wove_pipeline.arxiv.client import ArxivOaiClient
from wove_pipeline.database import access as db
from wove_pipeline.settings import raw_data_dir, upstream_settings
from wove_pipeline.upstream.raw_store import RawStore


class DatabaseResource(dg.ConfigurableResource):
    """The serving database (wove + serving schemas)."""

    url: str

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """An autocommit connection for core functions that open their own transactions on it
        (``with conn.transaction():``), e.g. around an upstream call they must not hold one over."""
        with db.connect(self.url, autocommit=True) as conn:
            yield conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction: committed when the block ends, rolled back on error."""
        with db.transaction(self.url) as conn:
            yield conn


class RawStoreResource(dg.ConfigurableResource):
    """Where raw responses are kept (a local folder or an object-store URI)."""

    root: str | None = None

    def store(self) -> RawStore:
        return RawStore(self.root or raw_data_dir())


class ArxivResource(dg.ConfigurableResource):
    base_url: str | None = None
    min_interval_s: float | None = None  # arXiv asks for >= 3 s; the sandbox runs at 0

    @contextlib.contextmanager
    def client(self) -> Iterator[ArxivOaiClient]:
        settings = upstream_settings()
        interval = self.min_interval_s if self.min_interval_s is not None else settings.arxiv_min_interval_s
        client = ArxivOaiClient(self.base_url or settings.arxiv_oai_url, min_interval_s=interval)
        try:
            yield client
        finally:
            client.close()
