CREATE INDEX conversation_turn_buffer IF NOT EXISTS FOR (t:ConversationTurn) ON (t.bufferKey)
