function toFahrenheit(celsius) {
  return (celsius * 9) / 5 - 32;
}

module.exports = { toFahrenheit };
