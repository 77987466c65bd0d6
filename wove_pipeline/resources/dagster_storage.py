"""Dagster's PostgreSQL instance storage with one race of its pool queue closed
(dagster.yaml: ``storage: custom:`` names this module).

A step that meets a pool (``pool="semantic_scholar"``, limit 1) registers in the queue in two
statements: it asks whether a slot is unassigned (``has_unassigned_slots``), then inserts its
pending row, assigned or not by that answer (``add_pending_step``). The step holding the
slot frees it and assigns the queue's next pending row (``free_concurrency_slot_for_step``).
When the free lands between the two statements, the newcomer's row is inserted unassigned
after the only assignment that would have picked it: the slot stays free, and nothing
assigns the row again, so the step waits for ever ("Step blocked by limit for pool"). It
happened about once in 40 fresh instances whose two runs meet the pool at the same moment
(tests/reliability/test_pools.py), more often on a loaded machine.

``claim_concurrency_slot`` here does what Dagster's does and then, for a step left
unassigned while the pool has an unassigned slot, assigns the queue's head (priority order
kept: it may be another step, which then claims on its next poll) and claims again. The
slot rows stay the semaphore, so two steps assigned to one slot still cannot both hold it.
"""

from __future__ import annotations

from dagster._utils.concurrency import ConcurrencyClaimStatus
from dagster_postgres import DagsterPostgresStorage, PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage
from dagster_postgres.utils import get_token_provider_from_config, pg_url_from_config


class PoolQueueSafeEventLogStorage(PostgresEventLogStorage):
    def claim_concurrency_slot(self, concurrency_key: str, run_id: str, step_key: str,
                               priority: int | None = None) -> ConcurrencyClaimStatus:
        status = super().claim_concurrency_slot(concurrency_key, run_id, step_key, priority)
        if status.is_claimed or status.is_assigned or not self.has_unassigned_slots(concurrency_key):
            return status
        self.assign_pending_steps([concurrency_key])
        return super().claim_concurrency_slot(concurrency_key, run_id, step_key, priority)

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> PoolQueueSafeEventLogStorage:
        return cls(inst_data=inst_data, postgres_url=pg_url_from_config(config_value),
                   should_autocreate_tables=config_value.get("should_autocreate_tables", True),
                   token_provider=get_token_provider_from_config(config_value))


class PoolQueueSafePostgresStorage(DagsterPostgresStorage):
    """DagsterPostgresStorage with PoolQueueSafeEventLogStorage for its event log. Run workers
    rebuild their instance from a reference to this class (Dagster's wrappers for a custom
    storage delegate to its event log), so their claims go through it too."""

    def __init__(self, postgres_url: str, should_autocreate_tables: bool = True, inst_data=None,
                 token_provider=None):
        # DagsterPostgresStorage.__init__ with our event log: calling it would open (and check the
        # schema of) an event log storage only to drop it, in every process that opens the instance
        self.postgres_url = postgres_url
        self.should_autocreate_tables = should_autocreate_tables
        self._inst_data = inst_data
        self._run_storage = PostgresRunStorage(postgres_url, should_autocreate_tables, token_provider=token_provider)
        self._event_log_storage = PoolQueueSafeEventLogStorage(postgres_url, should_autocreate_tables,
                                                               token_provider=token_provider)
        self._schedule_storage = PostgresScheduleStorage(postgres_url, should_autocreate_tables,
                                                         token_provider=token_provider)
        super(DagsterPostgresStorage, self).__init__()

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> PoolQueueSafePostgresStorage:
        return cls(postgres_url=pg_url_from_config(config_value),
                   should_autocreate_tables=config_value.get("should_autocreate_tables", True),
                   inst_data=inst_data, token_provider=get_token_provider_from_config(config_value))
