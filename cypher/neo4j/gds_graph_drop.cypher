// Drop the projected graph once its communities are read (no error if it is already gone).
CALL gds.graph.drop($graphName, false) YIELD graphName
RETURN graphName
