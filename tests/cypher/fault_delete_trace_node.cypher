// Fault injection, tests only: a trace node disappears behind the vector index's back
// (as after restoring an older graph backup), leaving its vector orphaned.
MATCH (t:Trace {id: $id})
DETACH DELETE t
