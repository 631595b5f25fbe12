document.title = "ran";
