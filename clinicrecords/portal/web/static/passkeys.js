/*
 * passkeys.js: the portal's one script (decision 0086). It runs the browser's side of a passkey ceremony for a
 * form that asks for one, and nothing else: no dependency, nothing inline, no eval, only its own origin.
 * Served at /static/passkeys.js (portal.web); a page that loads it allows `script-src 'self'` (and
 * `connect-src 'self'` when its options are fetched). docs/portal.md, "Passkeys".
 *
 * The contract with a page:
 *
 *   <form method="post" action="SAME-ORIGIN URL" data-passkey="register"          (or "authenticate")
 *         data-passkey-options="OPTIONS AS JSON">          (or data-passkey-options-url="SAME-ORIGIN URL")
 *     <input type="hidden" name="csrf_token" value="...">  (the token every portal form carries)
 *     <input type="hidden" name="credential">              (filled here with the browser's answer, as JSON)
 *     <p data-passkey-message hidden></p>                  (optional: where a failure is said, role="alert")
 *     <button type="submit">Add a passkey</button>
 *   </form>
 *
 * - `data-passkey`: "register" calls navigator.credentials.create(), "authenticate" calls
 *   navigator.credentials.get().
 * - The options are the server's PublicKeyCredentialCreationOptions or ...RequestOptions as JSON, binary
 *   values in base64url (py_webauthn's options_to_json): in the attribute `data-passkey-options`, or answered
 *   by a GET of `data-passkey-options-url` (same origin, the session's cookie sent), at the moment of submit
 *   so the challenge is fresh. Inline options are better where they can be used: Safari wants the ceremony to
 *   start right after the click.
 * - On submit the script stops the form, runs the ceremony, puts the answer (id, rawId, type, response with
 *   every binary value in base64url, authenticatorAttachment, clientExtensionResults; userHandle when the
 *   authenticator returns one) in the field `credential` and submits the form itself: an ordinary POST,
 *   form-encoded, with the form's csrf_token (portal/web/csrf.py reads it from the body), so the browser
 *   follows the server's redirect (303) or shows its page (400 with its message) as for any form.
 * - A form whose action or options URL is on another origin is left alone with a message. Without a
 *   browser that has passkeys, or when the person cancels, the message says so and nothing is posted.
 * - Without JavaScript the form posts an empty `credential`; the server answers with its page asking for
 *   another way (an authenticator app's code, a recovery code).
 */
(function () {
  "use strict";

  var MESSAGES = {
    unsupported: "This browser cannot use passkeys. Use another way to sign in, or another browser.",
    cancelled: "No passkey was used. Try again, or use another way.",
    options: "The passkey could not be prepared. Reload the page and try again.",
    elsewhere: "This form does not send to this site, so no passkey was used."
  };

  function toBuffer(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    var binary = atob(base64 + "===".slice((base64.length + 3) % 4));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) {
      bytes[i] = binary.charCodeAt(i);
    }
    return bytes.buffer;
  }

  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var binary = "";
    for (var i = 0; i < bytes.length; i += 1) {
      binary += String.fromCharCode(bytes[i]);
    }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function withBuffers(descriptors) {
    return (descriptors || []).map(function (descriptor) {
      var copy = Object.assign({}, descriptor);
      copy.id = toBuffer(descriptor.id);
      return copy;
    });
  }

  function publicKey(kind, options) {
    var copy = Object.assign({}, options);
    copy.challenge = toBuffer(options.challenge);
    if (kind === "register") {
      copy.user = Object.assign({}, options.user, {id: toBuffer(options.user.id)});
      copy.excludeCredentials = withBuffers(options.excludeCredentials);
    } else {
      copy.allowCredentials = withBuffers(options.allowCredentials);
    }
    return copy;
  }

  function answer(credential) {
    var response = credential.response;
    var json = {
      clientDataJSON: toBase64url(response.clientDataJSON)
    };
    if (response.attestationObject) {
      json.attestationObject = toBase64url(response.attestationObject);
      json.transports = typeof response.getTransports === "function" ? response.getTransports() : [];
    } else {
      json.authenticatorData = toBase64url(response.authenticatorData);
      json.signature = toBase64url(response.signature);
      if (response.userHandle && response.userHandle.byteLength) {
        json.userHandle = toBase64url(response.userHandle);
      }
    }
    return {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: json
    };
  }

  function sameOrigin(url) {
    return new URL(url, window.location.href).origin === window.location.origin;
  }

  function say(form, text) {
    var place = form.querySelector("[data-passkey-message]");
    if (place) {
      place.textContent = text;
      place.hidden = false;
      if (!place.hasAttribute("role")) {
        place.setAttribute("role", "alert");
      }
    }
  }

  function options(form) {
    var url = form.getAttribute("data-passkey-options-url");
    if (!url) {
      return new Promise(function (resolve) {
        resolve(JSON.parse(form.getAttribute("data-passkey-options")));
      });
    }
    if (!sameOrigin(url)) {
      return Promise.reject(new Error("elsewhere"));
    }
    return fetch(url, {credentials: "same-origin", headers: {Accept: "application/json"}, cache: "no-store"})
      .then(function (reply) {
        if (!reply.ok) {
          throw new Error("options");
        }
        return reply.json();
      });
  }

  function ceremony(form, kind, fetched) {
    var call = kind === "register" ? "create" : "get";
    return navigator.credentials[call]({publicKey: publicKey(kind, fetched)});
  }

  function start(form, event) {
    var kind = form.getAttribute("data-passkey");
    event.preventDefault();
    if (form.getAttribute("data-passkey-busy")) {
      return;
    }
    if (!window.PublicKeyCredential || !navigator.credentials) {
      say(form, MESSAGES.unsupported);
      return;
    }
    // The attribute, not form.action: a field named "action" would stand in for the property.
    if (!sameOrigin(form.getAttribute("action") || window.location.href)) {
      say(form, MESSAGES.elsewhere);
      return;
    }
    form.setAttribute("data-passkey-busy", "true");
    options(form)
      .catch(function (error) {
        throw new Error(error.message === "elsewhere" ? "elsewhere" : "options");
      })
      .then(function (fetched) {
        return ceremony(form, kind, fetched).catch(function () {
          throw new Error("cancelled");
        });
      })
      .then(function (credential) {
        if (!credential) {
          throw new Error("cancelled");
        }
        form.elements.namedItem("credential").value = JSON.stringify(answer(credential));
        HTMLFormElement.prototype.submit.call(form);
      })
      .catch(function (error) {
        form.removeAttribute("data-passkey-busy");
        say(form, MESSAGES[error.message] || MESSAGES.cancelled);
      });
  }

  function watch() {
    var forms = document.querySelectorAll("form[data-passkey]");
    Array.prototype.forEach.call(forms, function (form) {
      var kind = form.getAttribute("data-passkey");
      if (kind !== "register" && kind !== "authenticate") {
        return;
      }
      form.addEventListener("submit", function (event) {
        start(form, event);
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watch);
  } else {
    watch();
  }
}());
