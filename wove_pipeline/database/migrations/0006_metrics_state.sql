-- A wider paper state for the incremental metrics: the paper facts the metrics read
-- (citation count and its day, primary category, first version) and the
-- (institution, researcher) pairs on each paper, so recomputing researchers and
-- institutions reads the state alone instead of joining back to papers, citations,
-- authorships and mentions.
ALTER TABLE wove.metrics_paper_state
    ADD COLUMN cited_by_count          integer,                        -- wove.paper_citations
    ADD COLUMN cited_as_of             date,
    ADD COLUMN primary_category        text,
    ADD COLUMN published               timestamptz,
    ADD COLUMN institution_researchers text[] NOT NULL DEFAULT '{}';   -- '<institution_id> <researcher_id>'

-- State rows written before these columns existed lack them: forget the watermark so the
-- next metrics run is a full one (it rebuilds every state row).
DELETE FROM wove.metrics_runs;
