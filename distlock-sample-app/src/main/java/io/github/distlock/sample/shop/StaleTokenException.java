package io.github.distlock.sample.shop;

/**
 * A stock write refused by the fencing token: a later holder of the product's lock had already written, so this
 * caller's lock had expired while it worked (a pause past its lease). Nothing was changed.
 */
public class StaleTokenException extends RuntimeException {

	private final String sku;

	private final long token;

	private final long lastToken;

	private final int stockLeft;

	/**
	 * @param sku the product
	 * @param token the refused writer's fencing token
	 * @param lastToken the token of the product's last write, at least {@code token}
	 * @param stockLeft the product's stock, which the refused write did not change
	 */
	public StaleTokenException(String sku, long token, long lastToken, int stockLeft) {
		super("Refused a stock write for '" + sku + "' with stale fencing token " + token + ": the product was last "
				+ "written with " + lastToken);
		this.sku = sku;
		this.token = token;
		this.lastToken = lastToken;
		this.stockLeft = stockLeft;
	}

	public String getSku() {
		return this.sku;
	}

	public long getToken() {
		return this.token;
	}

	public long getLastToken() {
		return this.lastToken;
	}

	public int getStockLeft() {
		return this.stockLeft;
	}

}
