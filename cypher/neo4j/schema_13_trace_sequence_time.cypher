// A conversation's turns near a time (the TEMPORAL_SEQUENCE and context-vector reads) are found
// by the time range, not by reading the whole conversation.
CREATE INDEX trace_sequence_time IF NOT EXISTS FOR (t:Trace) ON (t.sequenceKey, t.createdAt)
