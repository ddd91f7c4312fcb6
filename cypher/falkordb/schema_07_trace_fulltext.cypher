// RediSearch full-text index over trace content (English stemming and stopwords).
CALL db.idx.fulltext.createNodeIndex({label: 'Trace', language: 'english'}, 'content')
