// A coup-cli bot that reports what it is given (for koth's adapter test): each call
// prints its method and parameters as one JSON line with console.error.
class BOT {
	constructor(options) {
		console.error(JSON.stringify({ method: 'constructor', options }));
	}

	report(method, params) {
		console.error(JSON.stringify({ method, params, keys: Object.keys(params) }));
	}

	onTurn(params) {
		this.report('onTurn', params);
		return { action: 'taking-1' };
	}

	onChallengeActionRound(params) {
		this.report('onChallengeActionRound', params);
		return false;
	}

	onCounterAction(params) {
		this.report('onCounterAction', params);
		return false;
	}

	onCounterActionRound(params) {
		this.report('onCounterActionRound', params);
		return false;
	}

	onSwappingCards(params) {
		this.report('onSwappingCards', params);
		return params.myCards;
	}

	onCardLoss(params) {
		this.report('onCardLoss', params);
		return params.myCards[0];
	}
}

module.exports = BOT;
