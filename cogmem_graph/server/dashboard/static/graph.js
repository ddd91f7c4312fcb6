// The graph page's clicks on the drawing. NVL reports each click on a node or a relationship
// (served nvl.js passes it to the drawing's element as a "neo4j-viz-event"); this follows the
// link the page lists for it, so the canvas and the keyboard reach the same pages:
// - a group's node or edge (id "group:TYPE"): the link drawing that group's edges each
//   (a.group[data-group=TYPE]);
// - an edge of the centre whose type is expanded: the link grouping that type again
//   (a.collapse[data-group=TYPE]).
// Anything else (a neighbour, another edge, the canvas) is left to NVL: it selects it.

const drawing = document.querySelector(".graph[data-centre]");
const block = document.getElementById("neo4j-viz-data");

function link(kind, type) {
  return [...document.querySelectorAll(`a.${kind}[data-group]`)].find((a) => a.dataset.group === type);
}

function target(event, relationships, centre) {
  if (!event || typeof event.id !== "string") return null;
  const clicked = event.type === "node_click" || event.type === "relationship_click";
  if (clicked && event.id.startsWith("group:")) return link("group", event.id.slice("group:".length));
  if (event.type !== "relationship_click") return null;
  const edge = relationships.get(event.id);
  if (!edge || (edge.from !== centre && edge.to !== centre)) return null;
  return link("collapse", String((edge.properties || {}).type));
}

if (drawing && block) {
  const data = JSON.parse(block.textContent);
  const relationships = new Map((data.relationships || []).map((r) => [String(r.id), r]));
  drawing.addEventListener("neo4j-viz-event", (e) => {
    const to = target(e.detail, relationships, drawing.dataset.centre);
    if (to) location.assign(to.href);
  });
}
