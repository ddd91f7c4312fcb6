CREATE INDEX observation_note_scope IF NOT EXISTS FOR (o:ObservationNote) ON (o.scopeKey)
