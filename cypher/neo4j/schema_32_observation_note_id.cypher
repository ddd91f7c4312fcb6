CREATE CONSTRAINT observation_note_id IF NOT EXISTS FOR (o:ObservationNote) REQUIRE o.id IS UNIQUE
