"use strict";
(function () {
  var PAGE = 50;
  function compare(a, b) {
    var x = a === null || a === "" ? null : a, y = b === null || b === "" ? null : b;
    if (x === null) return y === null ? 0 : 1;
    if (y === null) return -1;
    var nx = typeof x === "number" ? x : parseFloat(x), ny = typeof y === "number" ? y : parseFloat(y);
    if (!isNaN(nx) && !isNaN(ny)) return nx - ny;
    return String(x).localeCompare(String(y));
  }
  function setSort(headers, th, direction) {
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", direction > 0 ? "ascending" : "descending");
  }
  // Server-rendered tables: sort the rows in place.
  document.querySelectorAll("table.sortable-table").forEach(function (table) {
    var headers = Array.prototype.slice.call(table.querySelectorAll("th"));
    headers.forEach(function (th, column) {
      if (!th.classList.contains("sortable")) return;
      th.addEventListener("click", function () {
        var direction = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) { return direction * compare(r1.cells[column].textContent.trim(), r2.cells[column].textContent.trim()); });
        rows.forEach(function (r) { body.appendChild(r); });
        setSort(headers, th, direction);
      });
    });
  });
  // Item tables: rows come from the embedded JSON and are written with textContent only.
  document.querySelectorAll(".item-table").forEach(function (box) {
    var data = JSON.parse(box.querySelector("script[type='application/json']").textContent);
    var rows = data.rows, shown = rows, page = 0, sortColumn = -1, direction = 1;
    var headRow = box.querySelector("thead tr"), body = box.querySelector("tbody");
    var info = box.querySelector(".page-info"), filter = box.querySelector("input[type=search]");
    var headers = data.columns.map(function (name, column) {
      var th = document.createElement("th");
      th.textContent = name; th.className = "sortable"; th.scope = "col";
      th.addEventListener("click", function () {
        direction = sortColumn === column ? -direction : 1; sortColumn = column;
        shown = shown.slice().sort(function (a, b) { return direction * compare(a[column], b[column]); });
        setSort(headers, th, direction); page = 0; draw();
      });
      headRow.appendChild(th);
      return th;
    });
    function draw() {
      while (body.firstChild) body.removeChild(body.firstChild);
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      page = Math.min(page, pages - 1);
      shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (row) {
        var tr = document.createElement("tr");
        row.forEach(function (cell) {
          var td = document.createElement("td");
          td.textContent = cell === null ? "" : String(cell);
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      info.textContent = shown.length ? "page " + (page + 1) + " of " + pages + " · " + shown.length + " rows" : "no rows";
      box.querySelector("[data-page=prev]").disabled = page === 0;
      box.querySelector("[data-page=next]").disabled = page >= pages - 1;
    }
    filter.addEventListener("input", function () {
      var needle = filter.value.toLowerCase();
      shown = rows.filter(function (row) {
        return !needle || row.some(function (cell) { return cell !== null && String(cell).toLowerCase().indexOf(needle) >= 0; });
      });
      if (sortColumn >= 0) shown.sort(function (a, b) { return direction * compare(a[sortColumn], b[sortColumn]); });
      page = 0; draw();
    });
    box.querySelector("[data-page=prev]").addEventListener("click", function () { page -= 1; draw(); });
    box.querySelector("[data-page=next]").addEventListener("click", function () { page += 1; draw(); });
    draw();
  });
})();
