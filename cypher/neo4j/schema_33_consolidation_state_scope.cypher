CREATE CONSTRAINT consolidation_state_scope IF NOT EXISTS FOR (c:ConsolidationState) REQUIRE c.scopeKey IS UNIQUE
