function lastN(arr, n) {
  return arr.slice(arr.length - n);
}

module.exports = { lastN };
