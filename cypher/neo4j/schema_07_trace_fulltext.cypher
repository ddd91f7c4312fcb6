CREATE FULLTEXT INDEX trace_content IF NOT EXISTS FOR (t:Trace) ON EACH [t.content]
