// Erase: the traces a user wrote into shared scopes stay the organization's, without their author.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.author = $author
REMOVE t.author
RETURN count(t) AS updated
