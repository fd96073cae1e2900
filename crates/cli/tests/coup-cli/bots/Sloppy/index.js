// A coup-cli bot in the style of coup-cli's own examples (for koth's tests): random
// actions whether or not it can afford them, random challenges, and a "STOP"-free
// debugging habit of printing to stdout.
const { ACTIONS } = require('../../src/constants.js');

class BOT {
	onTurn({ myCoins, otherPlayers }) {
		let action = ACTIONS()[Math.floor(Math.random() * ACTIONS().length)];
		const against = otherPlayers[Math.floor(Math.random() * otherPlayers.length)].name;
		if (myCoins > 10) action = 'couping';
		process.stdout.write(`sloppy does ${action}\n`);
		return { action, against };
	}

	onChallengeActionRound() {
		return Math.random() < 0.2;
	}

	onCounterAction({ action }) {
		if (action === 'assassination') return [false, 'contessa'][Math.floor(Math.random() * 2)];
		if (action === 'stealing') return [false, 'ambassador', 'captain'][Math.floor(Math.random() * 3)];
		return false;
	}

	onCounterActionRound() {
		return Math.random() < 0.2;
	}

	onSwappingCards({ newCards }) {
		return newCards;
	}

	onCardLoss({ myCards }) {
		return myCards[0];
	}
}

module.exports = exports = BOT;
