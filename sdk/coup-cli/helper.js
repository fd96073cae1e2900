// koth's stand-in for coup-cli's src/helper.js (used only when a bot folder requires
// it from outside a coup-cli checkout): the colour helpers return the text as it is,
// since a bot's output goes to its log.
"use strict";

const plain = (text) => String(text);
const style = new Proxy({}, { get: () => plain });

module.exports = { style };
