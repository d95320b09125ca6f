const { toCelsius } = require("./convert.js");

function report(readings) {
  return readings.map((f) => `${f}F = ${Math.round(toCelsius(f))}C`).join("\n");
}

module.exports = { report };
