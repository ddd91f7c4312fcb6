// Stamp the data layout version this graph now holds, and the release that wrote it.
MERGE (v:StoreVersion {name: $name})
SET v.version = $version, v.release = $release, v.updatedAt = $now
RETURN v.version AS version
