function toCelsius(fahrenheit) {
  return ((fahrenheit - 32) * 9) / 5;
}

module.exports = { toCelsius };
