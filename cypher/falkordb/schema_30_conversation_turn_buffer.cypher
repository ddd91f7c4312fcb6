CREATE INDEX FOR (t:ConversationTurn) ON (t.bufferKey)
