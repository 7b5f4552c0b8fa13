// The claims and predictions tables: sort on any column (a column whose rows carry data-<key> sorts by that number,
// any other by its cells' text), filter by verdict (the menu above the table), and "#sort=<key>[-desc]" in the
// address sorts on load. A link to anything inside a closed <details> opens it.
["claims", "predictions"].forEach(function (tableId) {
  var table = document.getElementById(tableId);
  if (!table) return;
  var body = table.tBodies[0];
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  function keyOf(row, key, column) {
    var attribute = row.getAttribute("data-" + key);
    if (attribute !== null && attribute !== "") return parseFloat(attribute);
    if (attribute === "") return null;
    return row.cells[column] ? row.cells[column].textContent.trim().toLowerCase() : "";
  }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }
  function sortBy(key, dir) {
    var column = headers.findIndex(function (th) { return th.getAttribute("data-sort") === key; });
    if (column < 0) return;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var d = compare(keyOf(a, key, column), keyOf(b, key, column));
      if (d === 0) d = parseFloat(a.getAttribute("data-id")) - parseFloat(b.getAttribute("data-id"));
      return dir * d;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    headers.forEach(function (th) {
      if (th.getAttribute("data-sort") === key) th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
  }
  table.querySelectorAll("th[data-sort] button").forEach(function (button) {
    button.addEventListener("click", function () {
      var th = button.parentNode;
      sortBy(th.getAttribute("data-sort"), th.getAttribute("aria-sort") === "ascending" ? -1 : 1);
    });
  });
  var menu = document.querySelector('select[data-filter="' + tableId + '"]');
  if (menu) {
    menu.addEventListener("change", function () {
      Array.prototype.forEach.call(body.rows, function (row) {
        row.classList.toggle("filtered-out", menu.value !== "" && row.getAttribute("data-shown") !== menu.value);
      });
    });
  }
  var wanted = /^#sort=([a-z]+)(-desc)?$/.exec(window.location.hash);
  if (wanted) sortBy(wanted[1], wanted[2] ? -1 : 1);
});
function openTarget() {
  var id = decodeURIComponent(window.location.hash.slice(1));
  var target = id && document.getElementById(id);
  for (var node = target; node; node = node.parentElement) {
    if (node.tagName === "DETAILS") node.open = true;
  }
  var inside = target && target.querySelector(":scope > details");
  if (inside) inside.open = true;
  if (target) target.scrollIntoView();
}
window.addEventListener("hashchange", openTarget);
if (window.location.hash && !/^#sort=/.test(window.location.hash)) openTarget();
