CREATE INDEX trace_content_hash IF NOT EXISTS FOR (t:Trace) ON (t.scopeKey, t.contentHash)
