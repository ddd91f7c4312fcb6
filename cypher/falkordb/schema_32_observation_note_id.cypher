CREATE INDEX FOR (o:ObservationNote) ON (o.id)
