["claims", "predictions"].forEach(function (tableId) {
  var table = document.getElementById(tableId);
  if (!table) return;
  var body = table.tBodies[0];
  function sortBy(key, dir) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var d = parseFloat(a.getAttribute("data-" + key)) - parseFloat(b.getAttribute("data-" + key));
      if (d === 0) d = parseFloat(a.getAttribute("data-id")) - parseFloat(b.getAttribute("data-id"));
      return dir * d;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    table.querySelectorAll("th[data-sort]").forEach(function (th) {
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
  var wanted = /^#sort=(id|verdict)(-desc)?$/.exec(window.location.hash);
  if (wanted) sortBy(wanted[1], wanted[2] ? -1 : 1);
});
