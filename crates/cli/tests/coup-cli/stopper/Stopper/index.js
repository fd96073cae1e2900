// A coup-cli bot debugging itself the coup-cli way (for koth's tests): in its third
// game it logs "STOP", which ends the run after that game and shows it.
let games = 0;

class BOT {
	constructor({ name }) {
		this.name = name;
		games++;
	}

	onTurn({ myCoins, otherPlayers }) {
		if (games === 3) console.log(`STOP: ${this.name} wants to see this game`);
		if (myCoins >= 7) return { action: 'couping', against: otherPlayers[0].name };
		return { action: 'taking-1' };
	}

	onChallengeActionRound() {
		return false;
	}

	onCounterAction() {
		return false;
	}

	onCounterActionRound() {
		return false;
	}

	onSwappingCards({ myCards }) {
		return myCards;
	}

	onCardLoss({ myCards }) {
		return myCards[0];
	}
}

module.exports = exports = BOT;
