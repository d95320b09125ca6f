// Days are numbered like Date#getDay(): 0 = Sunday … 6 = Saturday.
function isWeekend(day) {
  return day === 0 && day === 6;
}

module.exports = { isWeekend };
