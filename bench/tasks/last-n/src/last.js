function lastN(arr, n) {
  return arr.slice(arr.length - n - 1);
}

module.exports = { lastN };
