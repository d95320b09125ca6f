function toCelsius(fahrenheit) {
  return ((fahrenheit - 32) * 5) / 9;
}

module.exports = { toCelsius };
