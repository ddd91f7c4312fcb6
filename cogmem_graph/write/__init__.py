"""The write path (DESIGN §5): `encode` turns text into traces in the graph and in Qdrant."""
