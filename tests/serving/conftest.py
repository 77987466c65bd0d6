"""Fixtures: the seed world (seed 7, 250 papers a day, 10 days) loaded from ground truth,
with metrics computed and the serving schema published, shared by a module's tests."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from psycopg import sql

from tests.conftest import TEMPLATE_DB, url_for  # the template is made and migrated by pg_server
from wove_pipeline.database import access as db
from wove_pipeline.metrics import compute as metrics

from .world_db import load_world, publish


@pytest.fixture(scope="session")
def seed_world():
    from wove_pipeline.sandbox.generator import generate_world
    return generate_world(seed=7, papers_per_day=250, days=10)


@pytest.fixture(scope="session")
def published_url(pg_server, seed_world):
    name = f"t_pub_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(TEMPLATE_DB)))
    url = url_for(pg_server.admin_url, name)
    load_world(url, seed_world)
    with db.transaction(url) as conn:
        metrics.update_metrics(conn)  # first run: a full one
    publish(url)
    yield url
    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
