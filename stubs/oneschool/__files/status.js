// Asks the server whether a late bus was reported and shows it (AJAX inside the web view).
(function () {
  var target = document.getElementById("status");
  if (!target) { return; }
  var request = new XMLHttpRequest();
  request.open("GET", "/bus/status.json");
  request.onload = function () {
    if (request.status !== 200) { return; }
    var status = JSON.parse(request.responseText);
    target.textContent = status.late ? "A bus is running late: " + status.message : "All buses on time.";
  };
  request.send();
})();
