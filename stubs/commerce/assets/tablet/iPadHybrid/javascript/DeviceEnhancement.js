/*
 * The page side of the Madisons hybrid app's JavaScript bridge (Understudy's own code).
 * A page asks the native shell for a feature by loading madisons://localhost/<Feature>#<callback>;
 * the shell does the native work and calls window[<callback>](result...).
 * Features: EmailPicker -> callback(email); ContactPicker -> callback(contact object);
 * CurrentLocation -> callback(latitude, longitude); Map?latitude=&longitude=&title= -> callback().
 */
var MadisonsBridge = {
  request: function (feature, callback) {
    window.location.href = "madisons://localhost/" + feature + "#" + callback;
  }
};
