import { signTypedData as metamaskSignTypedData, SignTypedDataVersion } from "@metamask/eth-sig-util";
import { Wallet as EthersWallet, type TypedDataField } from "ethers";
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";

/** Typed data as it travels to a wallet: domain, types (with EIP712Domain), primaryType, message. */
export interface WalletTypedData {
  domain: Record<string, unknown>;
  types: Record<string, readonly { readonly name: string; readonly type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

export function privateKeyOf(account: HDAccount): Hex {
  return `0x${Buffer.from(account.getHdKey().privateKey!).toString("hex")}`;
}

/** As JSON carries it to a wallet (`eth_signTypedData_v4`'s second parameter): bigints as decimal strings. */
export function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}

/** viem's `signTypedData`, given the object exactly as served (EIP712Domain included). */
export function signWithViem(account: HDAccount, typed: WalletTypedData): Promise<Hex> {
  return account.signTypedData(typed as never);
}

/** ethers v6 `Wallet.signTypedData(domain, types, value)`: ethers callers drop `EIP712Domain` (ethers derives it and refuses it in `types`). */
export function signWithEthers(account: HDAccount, typed: WalletTypedData): Promise<Hex> {
  const { EIP712Domain: _derived, ...types } = typed.types;
  return new EthersWallet(privateKeyOf(account)).signTypedData(typed.domain, types as Record<string, TypedDataField[]>, typed.message) as Promise<Hex>;
}

/** MetaMask's signer (`@metamask/eth-sig-util` `signTypedData` V4, what `eth_signTypedData_v4` runs), on the JSON a wallet receives. */
export function signWithMetaMask(account: HDAccount, typed: WalletTypedData): Hex {
  const privateKey = Buffer.from(account.getHdKey().privateKey!);
  return metamaskSignTypedData({ privateKey, data: asJson(typed) as never, version: SignTypedDataVersion.V4 }) as Hex;
}
