// The data layout version stamped in this graph (no row: never stamped).
MATCH (v:StoreVersion)
WHERE v.name = $name
RETURN v.version AS version, v.release AS release
